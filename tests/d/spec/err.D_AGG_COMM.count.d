/* an aggregation may not follow commit() in its clause either */
BEGIN { commit(1); @n = count(); }
