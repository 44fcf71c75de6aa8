int f(self int x);
