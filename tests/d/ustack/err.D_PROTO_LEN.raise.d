/* raise( ) takes a signal */
BEGIN { raise(); }
