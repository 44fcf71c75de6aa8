inline string S = 1;
