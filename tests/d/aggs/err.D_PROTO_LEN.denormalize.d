/* denormalize( ) takes an aggregation */
BEGIN { denormalize(); }
