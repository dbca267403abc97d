-- A confirmation may give a reason (and must, when it settles more than the finding's amount):
-- a dismissal still needs one and an escalation still has none.
ALTER TABLE finding_resolutions DROP CONSTRAINT finding_resolutions_check1;
ALTER TABLE finding_resolutions ADD CONSTRAINT finding_resolutions_dismissal_has_a_reason
    CHECK (state <> 'dismissed' OR reason IS NOT NULL);
ALTER TABLE finding_resolutions ADD CONSTRAINT finding_resolutions_escalation_has_no_reason
    CHECK (state <> 'escalated' OR reason IS NULL);
