--liquibase formatted sql

--changeset db-bulkhead:record-the-grant
CREATE TABLE grant_seen_by_liquibase (session_name text, granted integer);
INSERT INTO grant_seen_by_liquibase
    SELECT session_name, granted FROM fleet_joined_before_liquibase
    WHERE session_name = current_setting('application_name') AND lease_expires_at > now();
