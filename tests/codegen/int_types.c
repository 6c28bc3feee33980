int int_types(const int32_t *restrict A, const int32_t *restrict B, const float *restrict F, int32_t *restrict Q, int8_t *restrict R, int32_t *restrict S, uint8_t *restrict U, uint8_t *restrict P, int32_t *restrict W, int64_t N)
{
	if (!A || !B || !F || !Q || !R || !S || !U || !P || !W)
		return EIN_AOT_ERROR_NULL;
	if (!(N >= 1))
		return EIN_AOT_ERROR_SIZE;
	for (int64_t c0 = 0; (c0 < N); c0 += 1) {
		Q[c0] = ein_add_i32(ein_div_i32(A[c0], B[c0]), ein_rem_i32(A[c0], B[c0]));
	}
	for (int64_t c0 = 0; (c0 < N); c0 += 1) {
		R[c0] = ((int8_t) ein_mul_i32(A[c0], ((int32_t) 1000003)));
	}
	for (int64_t c0 = 0; (c0 < N); c0 += 1) {
		S[c0] = ein_add_i32(((int32_t) ein_int8_t_from_double(F[c0])), ((int32_t) ein_uint8_t_from_double(F[c0])));
	}
	for (int64_t c0 = 0; (c0 < N); c0 += 1) {
		U[c0] = ((uint8_t) ein_sub_i32(ein_add_i32(ein_abs_i32(A[c0]), (A[c0] < B[c0] ? A[c0] : B[c0])), (B[c0] > ((int32_t) 2) ? B[c0] : ((int32_t) 2))));
	}
	for (int64_t c0 = 0; (c0 < N); c0 += 1) {
		P[c0] = (uint8_t) ((A[c0] > B[c0]) && (!(B[c0] == ((int32_t) 0))));
	}
	for (int64_t c0 = 0; (c0 < N); c0 += 1) {
		W[c0] = ((P[c0] != 0) ? ein_sub_i32(0, A[c0]) : ein_int32_t_from_double((F[c0] * ((float) 0.5))));
	}
	return EIN_AOT_OK;
}

