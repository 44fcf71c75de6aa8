/* strjoin( ) with an argument of the wrong type */
BEGIN { trace(strjoin(1, "b")); }
