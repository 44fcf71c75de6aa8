/* inet_ntoa6( )'s strict flag is an integer, not a string */
BEGIN { trace(inet_ntoa6(alloca(16), "1")); }
