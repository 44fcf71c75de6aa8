/* speculate every tick, commit the even ones and discard the odd ones */
#pragma D option quiet
BEGIN { i = 0; }
tick-10ms /i < 6/ { spec = speculation(); speculate(spec); printf("spec %d val %d\n", spec, i); }
tick-10ms /i < 6 && (i % 2) == 0/ { commit(spec); }
tick-10ms /i < 6 && (i % 2) == 1/ { discard(spec); }
tick-10ms /i < 6/ { i++; }
tick-10ms /i == 6/ { exit(0); }
