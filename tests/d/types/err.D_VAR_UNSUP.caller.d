BEGIN { trace(caller); }
