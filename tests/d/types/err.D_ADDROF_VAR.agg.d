/* nor has an aggregation */
BEGIN { @n = count(); trace(&@n); }
