/* D strings hold no wide characters */
BEGIN { printf("%ws", "x"); }
