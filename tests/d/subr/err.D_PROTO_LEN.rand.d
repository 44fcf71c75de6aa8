/* rand() takes no argument */
BEGIN { trace(rand(1)); }
