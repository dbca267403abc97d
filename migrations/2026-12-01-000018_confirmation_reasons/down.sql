ALTER TABLE finding_resolutions DROP CONSTRAINT finding_resolutions_escalation_has_no_reason;
ALTER TABLE finding_resolutions DROP CONSTRAINT finding_resolutions_dismissal_has_a_reason;
ALTER TABLE finding_resolutions ADD CONSTRAINT finding_resolutions_check1
    CHECK ((state = 'dismissed') = (reason IS NOT NULL));
