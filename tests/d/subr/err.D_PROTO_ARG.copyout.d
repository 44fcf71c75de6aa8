/* copyout( ) with an argument of the wrong type */
BEGIN { copyout(0, "a", 1); }
