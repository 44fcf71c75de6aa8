inline int pid = 10;
