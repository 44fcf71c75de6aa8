/* a string where an integer is expected */
BEGIN { trace(htonl("x")); }
