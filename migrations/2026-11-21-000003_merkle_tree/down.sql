REVOKE ALL ON merkle_nodes FROM dozor_writer;
DROP TABLE merkle_nodes;
