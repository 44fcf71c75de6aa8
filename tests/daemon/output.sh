#!/bin/sh
# Output forms that need a traced program: -F flowindent over pid entry
# and return probes (with several clauses on one probe, as illumos's
# heuristic treats them), written with -o; the speculation example.
. "$(dirname "$0")/lib.sh"

# recurse 2: main -> down(2) -> down(1) -> down(0) -> leaf(0).  The
# first of leaf:entry's two clauses indents, the second is "|"; of
# leaf:return's two, the first is "|" and the last unindents.
# (one thread's records in one buffer: per-CPU buffers are printed a CPU
# at a time, and a target moved to the other CPU mid-call would print
# its later firings first, in illumos too)
timeout -k 10 60 "$DTRACE" -F -x bufscope=thread -o "$tmp/flow" \
    -c "$TRIGGERS/recurse 2" -n '
    pid$target:a.out:down:entry, pid$target:a.out:leaf:entry { trace(arg0); }
    pid$target:a.out:down:return, pid$target:a.out:leaf:return { trace(arg1); }
    pid$target:a.out:leaf:entry { trace("again"); }
    pid$target:a.out:leaf:return { trace("after"); }' >"$tmp/out" 2>"$tmp/err"
check "-F: exit 0" [ $? -eq 0 ]
same "$tmp/flow" "FUNCTION                                 
 -> down                                                  2
   -> down                                                1
     -> down                                              0
       -> leaf                                            0
        | leaf:entry                        again                            
        | leaf:return                                   100
       <- leaf                              after                            
     <- down                                            101
   <- down                                              102
 <- down                                                103

" "-F: entries indent, returns unindent, other clauses print |"
same "$tmp/out" "103
" "-o: the target's output alone on stdout"

# -q with -F: no header, no prefix (illumos: quiet wins); one thread's
# buffer again, so a move to the other CPU between the hits cannot
# reorder them
timeout -k 10 60 "$DTRACE" -qF -x bufscope=thread -o "$tmp/q" \
    -c "$TRIGGERS/recurse 1" -n '
    pid$target:a.out:down:entry { printf("in %d\n", arg0); }' \
    >"$tmp/out" 2>"$tmp/err"
same "$tmp/q" "in 1
in 0

" "-qF: only the data"

# The speculation chapter's example: speculate each call's trace and
# commit only the calls whose result is "bad" (a multiple of 7 here),
# discarding the others.  One thread on one CPU: a commit or discard
# frees the speculation at once, so nspec=1 never fails.
timeout -k 10 60 "$DTRACE" -q -o "$tmp/spec" -c "$TRIGGERS/oncpu 0 30" -n '
    pid$target::f:entry
    {
	self->spec = speculation();
	speculate(self->spec);
	printf("f(%d)", arg0);
    }
    pid$target::f:return /self->spec/
    {
	speculate(self->spec);
	printf(" = %d\n", arg1);
    }
    pid$target::f:return /self->spec && arg1 % 7 == 0/
    {
	commit(self->spec);
	self->spec = 0;
    }
    pid$target::f:return /self->spec/
    {
	discard(self->spec);
	self->spec = 0;
    }' >"$tmp/out" 2>"$tmp/err"
check "speculation example: exit 0" [ $? -eq 0 ]
same "$tmp/spec" "f(0) = 0
f(7) = 7
f(14) = 14
f(21) = 21
f(28) = 28

" "speculation example: only the committed calls"
same "$tmp/err" "" "speculation example: no failed speculation"

done_testing
