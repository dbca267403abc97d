DROP TABLE monitor_alerts, monitor_forks, monitor_mismatches, monitor_findings, monitor_tallies,
    monitor_registry_events, monitor_checkpoints, monitor_casinos;
DROP FUNCTION monitor_refuse_change();
