/* uaddr( ) takes one address */
BEGIN { uaddr(); }
