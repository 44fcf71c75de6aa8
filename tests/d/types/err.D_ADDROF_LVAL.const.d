BEGIN { trace(&1); }
