/* a record after commit() would land among the committed data */
BEGIN { commit(1); trace(1); }
