/* a clause-local array is written element by element, in place */
#pragma D option quiet
this int v[3];
BEGIN { this->v[0] = 4; this->v[2] = 6; }
BEGIN { this->v[1] = this->v[0] + this->v[2]; printf("%d %d %d\n", this->v[0], this->v[1], this->v[2]); exit(0); }
