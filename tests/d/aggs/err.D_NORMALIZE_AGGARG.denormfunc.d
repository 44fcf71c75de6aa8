/* denormalize( ) of an aggregating function, not of an aggregation */
BEGIN { denormalize(max(1)); }
