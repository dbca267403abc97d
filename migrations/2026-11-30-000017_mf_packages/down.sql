DROP TABLE mf_packages;
