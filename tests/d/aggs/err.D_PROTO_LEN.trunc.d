/* trunc( ) needs at least its aggregation */
BEGIN { @x = sum(1); trunc(); }
