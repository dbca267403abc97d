ALTER TABLE monitor_findings DROP COLUMN played_at;
DROP TRIGGER monitor_alerts_outbox ON monitor_alerts;
DROP FUNCTION monitor_alert_to_outbox();
DROP TABLE monitor_outbox;
