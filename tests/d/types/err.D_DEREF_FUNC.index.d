/* nor indexed */
BEGIN { this->f = (int (*)(int))0; trace(this->f[1]); }
