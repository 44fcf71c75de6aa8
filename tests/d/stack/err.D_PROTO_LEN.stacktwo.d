/* stack() takes a frame count at most */
BEGIN { stack(5, 10); }
