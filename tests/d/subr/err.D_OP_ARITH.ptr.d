/* no arithmetic on void * */
BEGIN { trace(alloca(8) + 1); }
