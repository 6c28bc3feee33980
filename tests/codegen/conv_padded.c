int conv_padded(const float *restrict X, const float *restrict W, float *restrict Y, float *restrict T, int64_t N, int64_t R)
{
	if (!X || !W || !Y || !T)
		return EIN_AOT_ERROR_NULL;
	if (!((N >= 1) && (R >= 1)))
		return EIN_AOT_ERROR_SIZE;
	for (int64_t c0 = 0; (c0 < N); c0 += 1) {
		Y[c0] = ((float) 0);
	}
	for (int64_t c0 = 0; (c0 < R); c0 += 1) {
		for (int64_t c1 = 0; (c1 < N); c1 += 1) {
			Y[c1] = (Y[c1] + ((((ein_add_i32(((int32_t) c1), ((int32_t) c0)) >= ((int32_t) 1)) && (ein_add_i32(((int32_t) c1), ((int32_t) c0)) <= ((int32_t) N))) ? X[((c0 + c1) - 1)] : ((float) 0)) * W[c0]));
		}
	}
	T[0] = ((float) 0);
	for (int64_t c0 = 0; (c0 < N); c0 += 1) {
		T[0] = (T[0] + (((float) 1 / ((float) 1 + expf(-X[c0]))) * ((float) 1 / sqrtf((((float) 1) + (X[c0] * X[c0]))))));
	}
	return EIN_AOT_OK;
}

