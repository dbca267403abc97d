DROP TABLE mf_deliveries;
