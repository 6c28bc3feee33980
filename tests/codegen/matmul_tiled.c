int matmul(const float *restrict A, const float *restrict B, float *restrict C, int64_t M, int64_t K, int64_t N)
{
	if (!A || !B || !C)
		return EIN_AOT_ERROR_NULL;
	if (!(((M >= 1) && (K >= 1)) && (N >= 1)))
		return EIN_AOT_ERROR_SIZE;
	const int64_t ext_A_1 = K;
	const int64_t ext_B_1 = N;
	const int64_t ext_C_1 = N;
	const int64_t ext_B_pack0_0 = 32;
	const int64_t ext_B_pack0_1 = 16;
	const int64_t ext_C_acc0_0 = 8;
	const int64_t ext_C_acc0_1 = 16;
	float *B_pack0 = malloc(sizeof(float) * ext_B_pack0_0 * ext_B_pack0_1);
	float *C_acc0 = malloc(sizeof(float) * ext_C_acc0_0 * ext_C_acc0_1);
	for (int64_t c0 = 0; (c0 < M); c0 += 1) /* parallel */ {
		for (int64_t c1 = 0; (c1 < N); c1 += 1) {
			C[(c0 * ext_C_1 + c1)] = ((float) 0);
		}
	}
	for (int64_t c0 = 0; (c0 <= ((M - 1) / 8)); c0 += 1) /* parallel */ {
		for (int64_t c1 = 0; (c1 < (N / 16)); c1 += 1) {
			for (int64_t c2 = 0; (c2 <= ((K - 1) / 32)); c2 += 1) {
				for (int64_t c3 = (32 * c2); (c3 <= ein_min64((K - 1), ((32 * c2) + 31))); c3 += 1) {
					for (int64_t c4 = (16 * c1); (c4 <= ((16 * c1) + 15)); c4 += 1) {
						B_pack0[(((-32 * c2) + c3) * ext_B_pack0_1 + ((-16 * c1) + c4))] = B[(c3 * ext_B_1 + c4)];
					}
				}
				for (int64_t c3 = (8 * c0); (c3 <= ein_min64((M - 1), ((8 * c0) + 7))); c3 += 1) {
					for (int64_t c4 = (16 * c1); (c4 <= ((16 * c1) + 15)); c4 += 1) {
						C_acc0[(((-8 * c0) + c3) * ext_C_acc0_1 + ((-16 * c1) + c4))] = C[(c3 * ext_C_1 + c4)];
					}
				}
				for (int64_t c3 = 0; (c3 <= ein_min64(7, ((M - (8 * c0)) - 1))); c3 += 1) {
					for (int64_t c4 = 0; (c4 <= ein_min64(31, ((K - (32 * c2)) - 1))); c4 += 1) /* unroll 4 */ {
						for (int64_t c5 = 0; (c5 <= 15); c5 += 1) /* vector 8 */ {
							C_acc0[(c3 * ext_C_acc0_1 + c5)] = (C_acc0[(c3 * ext_C_acc0_1 + c5)] + (A[(((8 * c0) + c3) * ext_A_1 + ((32 * c2) + c4))] * B_pack0[(c4 * ext_B_pack0_1 + c5)]));
						}
					}
				}
				for (int64_t c3 = (8 * c0); (c3 <= ein_min64((M - 1), ((8 * c0) + 7))); c3 += 1) {
					for (int64_t c4 = (16 * c1); (c4 <= ((16 * c1) + 15)); c4 += 1) {
						C[(c3 * ext_C_1 + c4)] = C_acc0[(((-8 * c0) + c3) * ext_C_acc0_1 + ((-16 * c1) + c4))];
					}
				}
			}
		}
		for (int64_t c2 = 0; (c2 <= ((K - 1) / 32)); c2 += 1) {
			for (int64_t c3 = (32 * c2); (c3 <= ein_min64((K - 1), ((32 * c2) + 31))); c3 += 1) {
				for (int64_t c4 = ((-(N % 16)) + N); (c4 < N); c4 += 1) {
					B_pack0[(((-32 * c2) + c3) * ext_B_pack0_1 + ((N <= 15) ? c4 : (((((N - 1) % 16) - N) + c4) + 1)))] = B[(c3 * ext_B_1 + c4)];
				}
			}
			for (int64_t c3 = (8 * c0); (c3 <= ein_min64((M - 1), ((8 * c0) + 7))); c3 += 1) {
				for (int64_t c4 = ((-(N % 16)) + N); (c4 < N); c4 += 1) {
					C_acc0[(((-8 * c0) + c3) * ext_C_acc0_1 + ((N <= 15) ? c4 : (((((N - 1) % 16) - N) + c4) + 1)))] = C[(c3 * ext_C_1 + c4)];
				}
			}
			for (int64_t c3 = 0; (c3 <= ein_min64(7, ((M - (8 * c0)) - 1))); c3 += 1) {
				for (int64_t c4 = 0; (c4 <= ein_min64(31, ((K - (32 * c2)) - 1))); c4 += 1) /* unroll 4 */ {
					for (int64_t c5 = 0; (c5 < (N % 16)); c5 += 1) /* vector 8 */ {
						C_acc0[(c3 * ext_C_acc0_1 + c5)] = (C_acc0[(c3 * ext_C_acc0_1 + c5)] + (A[(((8 * c0) + c3) * ext_A_1 + ((32 * c2) + c4))] * B_pack0[(c4 * ext_B_pack0_1 + c5)]));
					}
				}
			}
			for (int64_t c3 = (8 * c0); (c3 <= ein_min64((M - 1), ((8 * c0) + 7))); c3 += 1) {
				for (int64_t c4 = ((-(N % 16)) + N); (c4 < N); c4 += 1) {
					C[(c3 * ext_C_1 + c4)] = C_acc0[(((-8 * c0) + c3) * ext_C_acc0_1 + ((N <= 15) ? c4 : (((((N - 1) % 16) - N) + c4) + 1)))];
				}
			}
		}
	}
	free(B_pack0);
	free(C_acc0);
	return EIN_AOT_OK;
}

