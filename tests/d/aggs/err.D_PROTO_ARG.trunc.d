/* the number of entries trunc( ) keeps is a value, not an aggregation */
BEGIN { @x = sum(1); @y = count(); trunc(@x, @y); }
