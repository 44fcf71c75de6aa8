# proto/: the wire protocol between libdtrace and dtraced (message
# framing, the connection, the program object, the arithmetic of
# aggregation values), linked by both sides.
# It sits on dif/ (a program carries DIF) and on nothing else of ours.
PROTO_CPPFLAGS = -I$(top_srcdir)/dif
noinst_LIBRARIES += proto/libdtproto.a
proto_libdtproto_a_SOURCES = proto/dt_proto.h proto/dt_msg.c \
	proto/dt_peer.c proto/dt_proto.c proto/dt_aggval.c
proto_libdtproto_a_CPPFLAGS = $(AM_CPPFLAGS) $(PROTO_CPPFLAGS)
