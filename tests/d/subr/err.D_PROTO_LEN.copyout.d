/* copyout( ) with wrong number of arguments */
BEGIN { copyout(0, 0); }
