CREATE TABLE grant_seen_by_flyway (session_name text, granted integer);
INSERT INTO grant_seen_by_flyway
    SELECT session_name, granted FROM fleet_joined_before_flyway
    WHERE session_name = current_setting('application_name') AND lease_expires_at > now();
