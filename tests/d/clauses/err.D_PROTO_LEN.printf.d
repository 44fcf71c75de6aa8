/* printf( ) needs a format */
BEGIN { printf(); }
