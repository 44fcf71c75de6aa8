/* outside a predicate a thread-local must be assigned before a read */
BEGIN { trace(self->never); }
