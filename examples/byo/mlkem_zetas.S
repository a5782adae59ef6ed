/* The ML-KEM NTT's twiddle factors in the Montgomery domain, shared by ntt_fwd_bitrev_mont.S and intt_transposed.S:
 *
 *   byo_mlkem_zetas[k] = zeta^BitRev7(k) * 2^16 mod q, centred (|x| <= 1664), zeta = 17, q = 3329, k = 0..127
 *
 * (FIPS 203, section 4.3: the NTT's k-th twiddle is zeta^BitRev7(k); the factor 2^16 makes a Montgomery
 * multiplication by it a plain one). Entry 0 is not used.
 */
    .section .rodata
    .global byo_mlkem_zetas
    .type byo_mlkem_zetas, %object
    .balign 4
byo_mlkem_zetas:
    .hword -1044, -758, -359, -1517, 1493, 1422, 287, 202, -171, 622, 1577, 182, 962, -1202, -1474, 1468
    .hword 573, -1325, 264, 383, -829, 1458, -1602, -130, -681, 1017, 732, 608, -1542, 411, -205, -1571
    .hword 1223, 652, -552, 1015, -1293, 1491, -282, -1544, 516, -8, -320, -666, -1618, -1162, 126, 1469
    .hword -853, -90, -271, 830, 107, -1421, -247, -951, -398, 961, -1508, -725, 448, -1065, 677, -1275
    .hword -1103, 430, 555, 843, -1251, 871, 1550, 105, 422, 587, 177, -235, -291, -460, 1574, 1653
    .hword -246, 778, 1159, -147, -777, 1483, -602, 1119, -1590, 644, -872, 349, 418, 329, -156, -75
    .hword 817, 1097, 603, 610, 1322, -1285, -1465, 384, -1215, -136, 1218, -1335, -874, 220, -1187, -1659
    .hword -1185, -1530, -1278, 794, -1510, -854, -870, 478, -108, -308, 996, 991, 958, -1460, 1522, 1628
    .size byo_mlkem_zetas, . - byo_mlkem_zetas
