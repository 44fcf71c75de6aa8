/* denormalize( ) of something not an aggregation */
BEGIN { denormalize(1); }
