/* commit( ) takes a speculation ID */
BEGIN { commit(); }
