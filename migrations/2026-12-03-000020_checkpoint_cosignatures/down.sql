DROP TABLE checkpoint_cosignatures;
