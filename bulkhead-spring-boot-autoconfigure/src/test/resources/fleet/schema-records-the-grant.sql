DROP TABLE IF EXISTS grant_seen_by_schema_initialisation;
CREATE TABLE grant_seen_by_schema_initialisation (session_name text, granted integer);
INSERT INTO grant_seen_by_schema_initialisation
    SELECT session_name, granted FROM fleet_joined_before_schema_initialisation
    WHERE session_name = current_setting('application_name') AND lease_expires_at > now();
