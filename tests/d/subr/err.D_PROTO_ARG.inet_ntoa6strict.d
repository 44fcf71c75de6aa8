/* inet_ntoa6( )'s strict flag is an integer constant, not a variable */
int strict;
BEGIN { trace(inet_ntoa6(alloca(16), strict)); }
