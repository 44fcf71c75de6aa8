BEGIN { tracemem("abc", 4); }
