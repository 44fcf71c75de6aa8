BEGIN { commit("one"); }
