/* pointers to different types do not mix */
BEGIN { this->p = (int *)alloca(8); this->p = (char *)alloca(8); }
