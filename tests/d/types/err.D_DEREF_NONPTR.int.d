/* only pointers can be dereferenced */
BEGIN { x = 1; trace(*x); }
