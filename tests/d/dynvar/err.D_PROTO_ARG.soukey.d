/* a struct key must keep its type */
struct k { int a; };
struct j { int a; };
this struct k k;
this struct j j;
BEGIN { m[this->k] = 1; m[this->j] = 2; }
