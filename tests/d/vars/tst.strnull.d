/* NULL compares with strings and assigns to them, as the empty string */
#pragma D option quiet
BEGIN { s = "word"; self->t = "thread"; }
BEGIN { printf("%d %d\n", s == NULL, NULL != s); s = NULL; }
BEGIN { printf("%d %d [%s]\n", s == NULL, s == "", s); }
BEGIN { printf("%d\n", self->t != NULL); self->t = 0; }
BEGIN { printf("%d\n", self->t == NULL); exit(0); }
