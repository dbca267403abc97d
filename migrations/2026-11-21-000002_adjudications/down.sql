DROP TABLE findings;
DROP TABLE adjudications;
