BEGIN { x = speculation(1); }
