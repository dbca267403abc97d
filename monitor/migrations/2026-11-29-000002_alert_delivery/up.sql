-- Alerts delivered to a webhook at least once: every alert raised is put in the outbox in the
-- same transaction (a trigger, whichever code raised it), and stays there, retried with a delay
-- that grows, until the webhook answers 2xx. The outbox is the delivery's running state, not
-- evidence: its rows change with every attempt.
CREATE TABLE monitor_outbox (
    alert_id         BIGINT PRIMARY KEY REFERENCES monitor_alerts (id),
    attempts         INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    next_attempt_at  TIMESTAMPTZ NOT NULL,
    delivered_at     TIMESTAMPTZ,
    last_error       TEXT
);
CREATE INDEX monitor_outbox_pending ON monitor_outbox (next_attempt_at) WHERE delivered_at IS NULL;

CREATE FUNCTION monitor_alert_to_outbox() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO monitor_outbox (alert_id, next_attempt_at) VALUES (NEW.id, NEW.raised_at);
    RETURN NEW;
END;
$$;
CREATE TRIGGER monitor_alerts_outbox AFTER INSERT ON monitor_alerts
    FOR EACH ROW EXECUTE FUNCTION monitor_alert_to_outbox();
-- Alerts raised before the outbox existed are delivered too.
INSERT INTO monitor_outbox (alert_id, next_attempt_at) SELECT id, raised_at FROM monitor_alerts;

-- When the round of a finding was played: how long it has been open is counted in the casino's
-- gaming days from there. Empty for findings kept before the column existed.
ALTER TABLE monitor_findings ADD COLUMN played_at TIMESTAMPTZ;
