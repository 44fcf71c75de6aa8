auto x;
