/* a cast to an array type, however spelled */
BEGIN { trace((int *(*[2])[3])0); }
