/* past what one DIF variable carries */
struct huge { char b[70000]; };
struct huge cells[int];
