/* a clause-local's slot is strsize bytes */
#pragma D option strsize=128
struct blob { char b[200]; };
this struct blob scratchpad;
