BEGIN { trace(); }
